import { Controller, Get } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { JwtAuth } from '../common/auth.decorators';
import { PrismaService } from '../prisma/prisma.service';
import { PlanListDto, PUBLIC_PLANS, toPlanDto } from './dto/plan.dto';

@ApiTags('Plans')
@Controller('plans')
export class PlansController {
  constructor(private readonly prisma: PrismaService) {}

  @Get()
  @JwtAuth()
  @ApiOperation({ summary: 'The plans and their rate limits' })
  @ApiOkResponse({ type: PlanListDto })
  async list(): Promise<PlanListDto> {
    const plans = await this.prisma.plan.findMany({ where: { id: { in: [...PUBLIC_PLANS] } }, orderBy: { apiRequestsPerMinute: 'asc' } });
    return { data: plans.map(toPlanDto) };
  }
}
